// `mcusim report` of mobilenet_v2_quantized with DMO in headless Chromium: report-chromium-helpers.ts
// says what is checked. Skips when chromium is absent.
import { join } from 'node:path';
import { MODELS, describeReportInChromium } from './report-chromium-helpers.ts';

describeReportInChromium({ name: 'mobilenet_v2', model: join(MODELS, 'mobilenet_v2_quantized_1x3x224x224.tflite'), passes: 'dmo', seeds: '1', sections: ['summary', 'plans', 'overlap', 'libraries', 'passes', 'latency', 'verification'], data: ['models'] });
