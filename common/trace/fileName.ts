/**
 * The ending of every trace file's name. Apart from the schema so that the
 * language server, which skips trace files (they end in `.json` but are
 * never task files), does not load the schema with it.
 */
export const TRACE_FILE_SUFFIX = '.hudtrace.json';
