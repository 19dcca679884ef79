import { describeConformance, HttpReceiver } from "@warden/sink/testing"
import { Effect } from "effect"
import { sink } from "../examples/HttpSink.ts"

describeConformance("http-example", {
  sink,
  setup: Effect.map(HttpReceiver.make({ idHeader: "idempotency-key", dedupe: true }), (receiver) => ({
    config: { url: receiver.url },
    downstream: receiver,
    refuse: { permanent: HttpReceiver.refuse("permanent"), retryable: HttpReceiver.refuse("retryable") }
  })),
  child: { module: new URL("../examples/HttpSink.ts", import.meta.url).href }
})
