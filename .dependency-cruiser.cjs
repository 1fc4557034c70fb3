// Import rules of src/, checked by `npm run lint:deps` (part of `npm test`). A violation prints the
// rule's name. Layers go one way (README "Layout", ../shared/DESIGN.md §1):
// ir <- kernels <- sim <- optimizer <- codegen <- report <- api <- cli, web (src/index.ts, the
// package entry, re-exports api and layer indexes; src/web is the browser page, beside the CLI); inside src/optimizer each technique folder is
// entered only through its index.ts, and the planners know no other technique.
const TECHNIQUES = '(planners|overlap|dmo|replacement|schedule|tinyseg|tiling)';

/** One rule per layer: it imports nothing from the layers above it. */
const layer = (name, above) => ({
  name: `layer-${name}-imports-no-layer-above`,
  comment: `src/${name} must not import ${above.join(', ')} (layers: ir <- kernels <- sim <- optimizer <- codegen <- report <- api <- cli, web).`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: `^src/(${above.join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere in src/ (type-only imports count too).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('ir', ['kernels', 'sim', 'optimizer', 'codegen', 'report', 'api', 'cli', 'web']),
    layer('kernels', ['sim', 'optimizer', 'codegen', 'report', 'api', 'cli', 'web']),
    layer('sim', ['optimizer', 'codegen', 'report', 'api', 'cli', 'web']),
    layer('optimizer', ['codegen', 'report', 'api', 'cli', 'web']),
    layer('codegen', ['report', 'api', 'cli', 'web']),
    layer('report', ['api', 'cli', 'web']),
    layer('api', ['cli', 'web']),
    layer('cli', ['web']),
    {
      name: 'web-no-node-builtins',
      comment: 'src/web runs in a browser: no Node built-in at all (the library\'s two are replaced at build time by src/web/platform, scripts/build.mjs).',
      severity: 'error',
      from: { path: '^src/web/', pathNot: '^src/web/platform/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-through-layer-indexes',
      comment: 'src/web reads the library through its public surface only: src/index.ts and the layer index.ts files (as the CLI does), never a layer\'s inner file.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(ir|kernels|sim|optimizer|codegen|report|api)/', pathNot: '^src/(ir|kernels|sim|optimizer|codegen|report|api)/index\\.ts$' },
    },
    {
      name: 'io-only-in-cli',
      comment: 'Only src/cli touches files, the console process, the OS or the network; the layers below take and return data.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|path|process|child_process|os|readline|net|http|https|worker_threads|cluster|tty|dgram|dns)$',
      },
    },
    {
      name: 'technique-only-through-index',
      comment: `Files outside an optimizer technique folder ${TECHNIQUES} import only its index.ts.`,
      severity: 'error',
      from: { path: '^(.+)/[^/]+$' },
      to: {
        path: `^src/optimizer/${TECHNIQUES}/[^/]+$`,
        pathNot: ['^$1/[^/]+$', '/index\\.ts$'],
      },
    },
    {
      name: 'planners-know-planners-only',
      comment: 'src/optimizer/planners imports no other part of the optimizer: graph-aware planners (dmo, replacement) and passes register above it (plan-by-name.ts, pipeline.ts).',
      severity: 'error',
      from: { path: '^src/optimizer/planners/' },
      to: { path: '^src/optimizer/', pathNot: '^src/optimizer/planners/' },
    },
    {
      name: 'techniques-below-pipeline',
      comment: 'Technique folders never import the optimizer surface, the pass registry or the auto pass.',
      severity: 'error',
      from: { path: `^src/optimizer/${TECHNIQUES}/` },
      to: { path: '^src/optimizer/(index|pipeline|auto-pass)\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
