// The lines of a Markdown page's fenced shell blocks (```, ```sh or ```bash; other languages
// skipped), with `\` continuations joined: what the README and docs tests read as commands.

export function fencedShellLines(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.replace(/\\\n\s*/g, ' ').split('\n')) {
    const f = /^```(\w*)/.exec(line);
    if (f) {
      fence = fence === null ? (f[1] ?? '') : null;
      continue;
    }
    if (fence !== null && ['', 'sh', 'bash'].includes(fence)) out.push(line);
  }
  return out;
}
