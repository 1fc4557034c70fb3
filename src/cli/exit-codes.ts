// mcusim's exit codes (DESIGN.md §4): 0 ok, 1 a check failed, 2 bad input (model, usage,
// infeasible plan), 70 an internal error. Kept free of imports so the CLI entry loads it cheaply.
export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_BAD_INPUT = 2;
export const EXIT_INTERNAL = 70;
