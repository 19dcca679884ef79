/**
 * The admin server is stopping. A response that lasts as long as its client wants (the console's live
 * decisions, `GET /api/decisions/stream`) ends when this completes: the server's close waits for every
 * open response, up to its graceful-shutdown timeout (20 s by default), so one open console page made a
 * SIGTERM take ~22 s instead of ~1.6 s (issue 35). Completed by the admin server's own finalizer, which
 * runs before the listener's close.
 */
import { Context, Deferred, Layer } from "effect"

/** Completed when the admin server starts stopping. */
export class Stopping extends Context.Service<Stopping, Deferred.Deferred<void>>()("@warden/daemon/admin/Stopping") {
  /** A new signal, not yet completed. */
  static readonly layer = Layer.effect(Stopping, Deferred.make<void>())
}
