#!/usr/bin/env node
/**
 * The `warden` executable: the heap budget first, then the program. The program is imported
 * dynamically so that the budget is in place before its ~740 modules are parsed (loading them would
 * otherwise grow V8's young generation to its maximum before any of them runs).
 */
import * as HeapBudget from "./HeapBudget.ts"

HeapBudget.install()
await import("./Executable.ts")
