#!/usr/bin/env node
/** The `warden` executable. */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit, Runtime } from "effect"
import { run } from "./cli/Main.ts"

/**
 * SIGINT/SIGTERM interrupt the program; a clean drain after a signal is a normal stop, so it exits 0
 * (the default would be 130). Failures keep their exit codes (78 invalid configuration, ...).
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain({ teardown }))
