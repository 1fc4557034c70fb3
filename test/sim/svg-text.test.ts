// The shared SVG text rules: names elided from the start (the distinguishing tail shows), titles
// wrapped at spaces / commas / slashes and never longer than asked, XML escaping, 1-2-5 ticks.
import { describe, expect, it } from 'vitest';
import { elideStart, escapeXml, formatBytes, niceTickStep, wrapText } from '../../src/sim/index.ts';

describe('svg-text', () => {
  it('elides from the start so the tail shows, within the length asked', () => {
    const name = 'MobilenetV1/MobilenetV1/Conv2d_13_pointwise/Relu6';
    expect(elideStart(name, 27)).toBe('…/Conv2d_13_pointwise/Relu6');
    expect(elideStart(name, 28)).toHaveLength(28);
    expect(elideStart('short', 28)).toBe('short');
    expect(elideStart(name, 1)).toBe('…');
  });

  it('wraps long titles into lines no longer than the width, keeping every character', () => {
    const title = '/very/long/path/to/some/models/folder/mobilenet_v2_quantized_1x3x224x224.tflite after --passes dmo,tinyseg,ffmt (offline plan carried in the model)';
    const lines = wrapText(title, 40);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(40);
    expect(lines.join('').replace(/\s/g, '')).toBe(title.replace(/\s/g, ''));
    expect(wrapText('fits', 40)).toEqual(['fits']);
  });

  it('escapes XML and formats bytes and ticks', () => {
    expect(escapeXml(`a<b&"c"'`)).toBe('a&lt;b&amp;&quot;c&quot;&apos;');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(niceTickStep(300, 8)).toBe(50);
    expect(niceTickStep(0.9, 8, 1e-6)).toBeCloseTo(0.2);
  });
});
