/** The sinks the daemon delivers verdicts to, built from the config (some hold a resource, e.g. a file). */
import { Context } from "effect"
import type { Sink } from "./Sink.ts"

/** Every configured sink, in config order. */
export class SinkList extends Context.Service<SinkList, ReadonlyArray<Sink>>()("@warden/daemon/SinkList") {}
