// The suite's own harness (issue 15): the summary reporter's slowest-files list and the
// longest-first sequencer's estimate (vitest's cached duration first, else the measured figure);
// where the data is read (issue 51: own data from testdata/ or its oracle copy, fetched data from
// the oracle folder) and the folder a skipped test names.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPECTED_SECONDS, expectedMs } from './longest-first-sequencer.ts';
import { NO_DATA, OP_MODELS, ORACLE, ORACLE_VECTORS, dataPath, fetchedParts, tfliteNames } from './oracle-paths.ts';
import { SLOWEST_FILES, missingDataFolder, slowestFilesLines } from './summary-reporter.ts';

describe('summary reporter: slowest files', () => {
  it('lists the 10 slowest, slowest first, in seconds with the path', () => {
    const files = Array.from({ length: 12 }, (_, i) => ({ file: `test/f${i}.test.ts`, ms: i * 1000 + 200 }));
    const lines = slowestFilesLines(files);
    expect(SLOWEST_FILES).toBe(10);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('   11.2 s  test/f11.test.ts');
    expect(lines[9]).toBe('    2.2 s  test/f2.test.ts');
  });

  it('lists fewer when the run had fewer files; ties by path', () => {
    expect(slowestFilesLines([{ file: 'b', ms: 5 }, { file: 'a', ms: 5 }])).toEqual(['    0.0 s  a', '    0.0 s  b']);
  });
});

describe('longest-first sequencer: expected time of a file', () => {
  it("prefers vitest's cached duration, else the measured figure, else 0", () => {
    const [file, seconds] = Object.entries(EXPECTED_SECONDS)[0] ?? ['', 0];
    expect(expectedMs(file, 1234)).toBe(1234);
    expect(expectedMs(file, undefined)).toBe(seconds * 1000);
    expect(expectedMs('test/not-listed.test.ts', undefined)).toBe(0);
  });
});

describe('oracle paths', () => {
  it('reads own data where it is kept and fetched data from the oracle folder', () => {
    expect(dataPath('op-models/SVDF_1.tflite')).toBe(join(OP_MODELS, 'SVDF_1.tflite'));
    expect(dataPath('vectors/ADD.jsonl')).toBe(join(ORACLE_VECTORS, 'ADD.jsonl'));
    expect(dataPath('models-real/x.tflite')).toBe(join(ORACLE, 'models-real', 'x.tflite'));
    expect(fetchedParts('op-models/a', 'models-real/b', 'cmsis-nn-m7/files/c', 'models-real/d', 'arena-cortex-m7.json')).toEqual(['models-real', 'cmsis-nn-m7']);
  });

  it('lists no model of a missing folder, and the reporter reads the folder a skipped name gives', () => {
    expect(tfliteNames(join(ORACLE, 'no-such-folder'))).toEqual([]);
    expect(missingDataFolder(`suite ${NO_DATA}/data/models] > case`)).toBe('/data/models');
  });
});
