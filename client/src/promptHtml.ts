/**
 * The small page that shows a long prompt to the person answering it (the
 * `ask` agent). The prompt comes from the environment's code: untrusted, so
 * it is escaped and the page runs no script at all.
 */
import { escapeHtml, renderWebviewPage } from './webviewPage';

export function promptHtml(opts: { title: string; prompt: string; nonce: string }): string {
  return renderWebviewPage({
    title: opts.title,
    nonce: opts.nonce,
    inlineStyle: PROMPT_STYLE,
    body: [
      `<h1>${escapeHtml(opts.title)}</h1>`,
      '<p class="hint">Type your answer in the input box at the top of the window.</p>',
      `<pre id="prompt">${escapeHtml(opts.prompt)}</pre>`,
    ].join('\n    '),
  });
}

const PROMPT_STYLE = `
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1rem; }
  h1 { font-size: 1.1em; font-weight: 600; }
  pre { white-space: pre-wrap; word-break: break-word; font-family: var(--vscode-editor-font-family);
        font-size: var(--vscode-editor-font-size); background: var(--vscode-textCodeBlock-background);
        padding: .75rem; border-radius: 4px; }
  p.hint { color: var(--vscode-descriptionForeground); }
`;

/** A prompt needs the page when it does not fit the input box's one line. */
export function needsPromptPage(prompt: string): boolean {
  return prompt.length > 160 || prompt.includes('\n');
}
