// Public surface of the board profiles (src/sim/targets).
export * from './target-profile.ts';
export * from './nicla-vision.ts';
export * from './registry.ts';
export * from './boards.ts';
export * from './core-timing.ts';
