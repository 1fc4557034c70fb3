// The README's runnable examples: each `<!-- example -->` marker above a sh block, the commands
// of that block and the lines of the ```text block after it. Read by the README test (a clone) and
// by the package test (the installed tarball in an empty folder).

export interface Example {
  readonly line: number;
  readonly commands: string[];
  readonly shown: string[];
}

/** Each `<!-- example -->` block: its shell commands and the lines of the ```text block after it. */
export function readmeExamples(md: string): Example[] {
  const lines = md.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '<!-- example -->') continue;
    let j = i + 1;
    if (!/^```(sh|bash)$/.test(lines[j] ?? '')) throw new Error(`README line ${i + 1}: an example marker must stand right above a sh block`);
    const commands: string[] = [];
    for (j++; j < lines.length && lines[j] !== '```'; j++) commands.push((lines[j] ?? '').replace(/\s#.*$/, '').trim());
    for (j++; j < lines.length && (lines[j] ?? '').trim() === ''; j++);
    const shown: string[] = [];
    if (lines[j] === '```text') for (j++; j < lines.length && lines[j] !== '```'; j++) shown.push((lines[j] ?? '').trimEnd());
    out.push({ line: i + 1, commands: commands.filter((c) => c !== ''), shown });
  }
  return out;
}

/** Lines of `example.shown` no printed line starts with (trailing blanks ignored). */
export function missingLines(example: Example, stdout: string): string[] {
  const printed = stdout.split('\n').map((l) => l.trimEnd());
  return example.shown.filter((s) => !printed.some((p) => p.startsWith(s)));
}
