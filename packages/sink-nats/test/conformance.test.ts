import { describeConformance } from "@warden/sink/testing"
import { Effect } from "effect"
import { sink } from "../src/index.ts"
import * as Stream from "./support/Stream.ts"

/**
 * A real nats-server per check: records go to `{source}.verdicts`, the stream takes `conformance.>`, so
 * a record of another source is one no stream takes (permanent); `stop`/`start` restart the server on
 * the same port and store.
 */
describeConformance("nats", {
  sink,
  setup: Effect.map(Stream.make(), ({ server, stream, ids }) => ({
    config: { servers: [server.url], subject: "{source}.verdicts", stream, timeout: "2 seconds" },
    downstream: {
      received: ids,
      stop: Effect.promise(() => server.stop()),
      start: Effect.promise(() => server.start())
    },
    refuse: { permanent: (record) => ({ ...record, source: "nowhere" }) }
  })),
  child: { module: new URL("../src/index.ts", import.meta.url).href }
})
