// `mcusim report` of Tiny U-Net with TinySeg (the sweep section too) in headless Chromium: report-chromium-helpers.ts
// says what is checked. Skips when chromium is absent.
import { describeReportInChromium } from './report-chromium-helpers.ts';

describeReportInChromium({ name: 'tiny-unet', model: 'zoo:tiny-unet', passes: 'tinyseg', seeds: '2', sections: ['summary', 'plans', 'overlap', 'libraries', 'passes', 'latency', 'sweep', 'verification'] });
