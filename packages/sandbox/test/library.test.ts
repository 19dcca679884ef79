import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Classifier, Keys, Sandbox, SandboxConfig, UsernameClassifier } from "../src/index.ts"
import { CHANNEL } from "./helpers.ts"

describe("Sandbox.layer", () => {
  it.live("starts on a free loopback port, serves, is controlled programmatically, and stops with its scope", () =>
    Effect.gen(function* () {
      const url = yield* Effect.gen(function* () {
        const sandbox = yield* Sandbox.Sandbox
        assert.match(sandbox.url, /^http:\/\/127\.0\.0\.1:\d+$/)
        yield* sandbox.setFaults({ transient: 1 })
        const call = () =>
          Effect.promise(() =>
            fetch(sandbox.endpoint("analyzeText"), {
              method: "POST",
              headers: { authorization: "ApiKey sandbox-standard-key", "content-type": "application/json" },
              body: JSON.stringify({ channelId: CHANNEL, text: "hi" })
            })
          )
        assert.strictEqual((yield* call()).status, 503)
        yield* sandbox.setFaults({})
        yield* sandbox.setQuotas({ "sandbox-org": { analyzeText: { requestsPerSecond: 1 } } })
        assert.strictEqual((yield* call()).status, 200)
        assert.strictEqual((yield* call()).status, 429)
        const stats = yield* sandbox.stats
        assert.deepStrictEqual(stats.byEndpoint.analyzeText, { "200": 1, "429": 1, "503": 1 })
        const requests = yield* sandbox.requests
        assert.strictEqual(requests.length, 3)
        yield* sandbox.reset
        assert.strictEqual((yield* sandbox.requests).length, 0)
        return sandbox.url
      }).pipe(Effect.provide(Sandbox.layer()))
      const after = yield* Effect.promise(() =>
        fetch(`${url}/_sandbox/health`).then(
          () => "open",
          () => "closed"
        )
      )
      assert.strictEqual(after, "closed")
    })
  )

  it.live("fails with SandboxStartError when the port is taken", () =>
    Effect.gen(function* () {
      const first = yield* Sandbox.start()
      const error = yield* Effect.flip(Sandbox.start({ port: first.port }))
      assert.strictEqual(error._tag, "SandboxStartError")
      assert.strictEqual(error.port, first.port)
    }).pipe(Effect.scoped)
  )
})

describe("SandboxConfig", () => {
  it("decodes JSON and YAML; errors name every wrong field", () => {
    const ok = SandboxConfig.parse(
      "a.yaml",
      "keys:\n  - key: k\n    organisation: acme\n    kind: reseller\nrequestLogSize: 5\n"
    )
    assert.isTrue(Result.isSuccess(ok))
    const json = SandboxConfig.parse("a.json", '{"quotas":{"acme":{"analyzeText":{"requestsPerSecond":2}}}}')
    assert.isTrue(Result.isSuccess(json))
    const bad = SandboxConfig.parse(
      "b.yaml",
      "keys:\n  - key: k\n    kind: root\nfaults:\n  drop: 5\nrequestLogSize: -1\nnope: 1\n"
    )
    assert.isTrue(Result.isFailure(bad))
    if (Result.isFailure(bad)) {
      const fields = bad.failure.violations.map((v) => v.field)
      for (const f of ["keys.0.organisation", "keys.0.kind", "faults.drop", "requestLogSize", "nope"]) {
        assert.include(fields, f)
      }
      assert.include(bad.failure.message, "b.yaml")
    }
    assert.isTrue(Result.isFailure(SandboxConfig.parse("c.yaml", "keys: [")))
  })
})

describe("Keys", () => {
  it("holds keys Redacted: printing a key never shows its value", () => {
    const ring = new Keys.KeyRing([{ key: "super-secret", organisation: "o" }])
    const found = ring.check("super-secret")
    assert.strictEqual(found._tag, "Authenticated")
    if (found._tag === "Authenticated") {
      assert.notInclude(String(found.key.key), "super-secret")
      assert.notInclude(JSON.stringify(found.key), "super-secret")
    }
  })
})

describe("Classifier", () => {
  it("is deterministic", () => {
    const a = Classifier.classify({ text: "I will kill you, idiot" })
    const b = Classifier.classify({ text: "I will kill you, idiot" })
    assert.deepStrictEqual(a, b)
    assert.deepStrictEqual(a.classifications, ["THREAT", "INSULT"])
    assert.strictEqual(a.severity, "VERY_HIGH")
  })

  it("does not take a word inside another for an insult", () => {
    assert.deepStrictEqual(Classifier.classify({ text: "the consultant wrote a constitution" }).classifications, [
      "NEUTRAL"
    ])
  })

  it("usernames: plain names pass, staff lookalikes are flagged", () => {
    assert.deepStrictEqual(UsernameClassifier.classify({ username: "model_citizen" }).classifications, ["NEUTRAL"])
    assert.deepStrictEqual(UsernameClassifier.classify({ username: "m0derator" }).classifications, ["IMPERSONATION"])
  })
})
