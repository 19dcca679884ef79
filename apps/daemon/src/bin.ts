#!/usr/bin/env node
/**
 * The `warden` executable: V8's worker pool sized to the machine (`warden run` starts again once with
 * it, before anything else: V8Pool.ts), the compile cache and the heap budget, then the program. The program
 * is imported dynamically so that both are in place before its ~740 modules are parsed (loading them
 * would otherwise grow V8's young generation to its maximum before any of them runs).
 *
 * The compile cache (`module.enableCompileCache`, in the OS temp directory unless `NODE_COMPILE_CACHE`
 * names one; `NODE_DISABLE_COMPILE_CACHE=1` turns it off) keeps V8's code for those modules between
 * starts: a start that finds it compiles nothing again (`warden demo` to its first verdict 1.21 ->
 * 0.99 s, docs/BENCHMARKS.md). It is flushed once the program's modules are loaded rather than at exit,
 * which a daemon stopped by kill -9 or a crash never reaches.
 */
import { enableCompileCache, flushCompileCache } from "node:module"
import * as HeapBudget from "./HeapBudget.ts"
import * as V8Pool from "./V8Pool.ts"

V8Pool.apply()
enableCompileCache()
HeapBudget.install()
await import("./Executable.ts")
flushCompileCache()
