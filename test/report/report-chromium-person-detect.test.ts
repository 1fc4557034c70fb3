// `mcusim report` of person_detect with FFMT in headless Chromium: report-chromium-helpers.ts
// says what is checked. Skips when chromium is absent.
import { join } from 'node:path';
import { MODELS, describeReportInChromium } from './report-chromium-helpers.ts';

describeReportInChromium({ name: 'person_detect', model: join(MODELS, 'person_detect.tflite'), passes: 'ffmt', seeds: '2', sections: ['summary', 'plans', 'overlap', 'libraries', 'passes', 'latency', 'verification'], data: ['models'] });
