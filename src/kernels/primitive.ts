// The shape of one numeric primitive a loop nest may call (the tables are primitives.ts and
// primitives-gemmlowp.ts; both import this type, neither imports the other's back).
export interface Primitive {
  readonly name: string;
  readonly arity: number;
  /** Other primitives this one calls (emitted first). */
  readonly deps: readonly string[];
  /** A JS function declaration named `p_<name>`; int32 in, int32 out. */
  readonly js: string;
  /** A C99 `static inline` function named `mcu_<name>`. */
  readonly c: string;
  /** Abstract integer operations per call (for the cost model). */
  readonly costOps: number;
}
