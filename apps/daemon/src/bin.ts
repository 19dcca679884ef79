#!/usr/bin/env node
/** The `warden` executable. */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { run } from "./cli/Main.ts"

run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
