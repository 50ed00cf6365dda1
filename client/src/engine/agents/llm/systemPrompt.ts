/** The default system prompt; `--system` text is appended to it, never replaces the tool contract. */
export function systemPrompt(extra: string | undefined): string {
  const base = [
    'You are an agent solving a task inside a sandboxed workspace.',
    'Use the tools: `bash` runs shell commands in the workspace, `editor` views and edits text files,',
    'and `submit` ends the task with your final answer. Only `submit` finishes the task; plain text does not.',
    'Check your work before you submit. Submit exactly the answer the task asks for, with nothing around it.',
  ].join('\n');
  return extra ? `${base}\n\n${extra}` : base;
}
