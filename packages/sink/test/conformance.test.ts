import { describeConformance } from "@warden/sink/testing"
import { Effect } from "effect"
import { sink } from "../examples/HttpSink.ts"
import * as Receiver from "./fixtures/Receiver.ts"

const refuseAs = (kind: string) => (record: { source: string; reference: string; version: number; json: string }) => ({
  ...record,
  json: JSON.stringify({ ...JSON.parse(record.json), refuse: kind })
})

describeConformance("http-example", {
  sink,
  setup: Effect.map(Receiver.make({ dedupe: true }), (receiver) => ({
    config: { url: receiver.url },
    downstream: receiver,
    refuse: { permanent: refuseAs("permanent"), retryable: refuseAs("retryable") }
  })),
  child: { module: new URL("../examples/HttpSink.ts", import.meta.url).href }
})
