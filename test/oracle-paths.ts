// Where the TFLM oracle data lives: testdata/ in the repository (a copy of the public oracle,
// refreshed by scripts/refresh-testdata.sh), or the folder named by MCUSIM_DATA (same layout:
// vectors/*.jsonl, models/<name>.tflite, models/<name>/seed1/, op-models/, models-real/, ...).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

export const ORACLE = process.env['MCUSIM_DATA'] ?? resolve(repoRoot, 'testdata');
export const ORACLE_VECTORS = `${ORACLE}/vectors`;
export const ORACLE_MODELS = `${ORACLE}/models`;
