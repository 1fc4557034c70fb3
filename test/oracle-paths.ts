// Where the shared TFLM oracle data lives: ../shared/oracle beside the repository (as on CI),
// or the folder named by MCUSIM_DATA (same layout: vectors/*.jsonl, models/<name>.tflite).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

export const ORACLE = process.env['MCUSIM_DATA'] ?? resolve(repoRoot, '../shared/oracle');
export const ORACLE_VECTORS = `${ORACLE}/vectors`;
export const ORACLE_MODELS = `${ORACLE}/models`;
export const PAPERS = resolve(repoRoot, '../shared/papers');
