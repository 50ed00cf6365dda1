// zod compiles object parsers with `new Function` unless told not to, and
// probes for it when a schema is built; the webview's CSP forbids eval. This
// module must be imported before any schema module is evaluated.
import { z } from 'zod';

z.config({ jitless: true });
