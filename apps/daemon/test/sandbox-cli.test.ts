import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { afterEach, describe, expect, it } from "vitest"
import { freePort } from "./support/DaemonProcess.ts"
import { warden } from "./support/WardenCli.ts"

const bin = new URL("../src/bin.ts", import.meta.url).pathname
const children: Array<ChildProcess> = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM")
})

/** Starts `warden sandbox ...args` and resolves with the URL it prints. */
const start = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@warden/source", bin, "sandbox", ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) resolve(match[1]!)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}${err}`)))
  })

const analyze = (url: string, text: string) =>
  fetch(`${url}/analyze/v1/text`, {
    method: "POST",
    headers: { authorization: "ApiKey sandbox-standard-key", "content-type": "application/json" },
    body: JSON.stringify({ channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c", text })
  })

describe("warden sandbox", () => {
  it("with --port 0 picks a free port, prints it, and serves the API there", async () => {
    const url = await start(["--port", "0"])
    expect(url).not.toMatch(/:0$/)
    const res = await analyze(url, "[[THREAT]] see you")
    expect(res.status).toBe(200)
    expect(((await res.json()) as any).textAnalysis.classifications).toEqual(["THREAT"])
  })

  it("listens on the port given", async () => {
    const port = await freePort()
    const url = await start(["--port", String(port)])
    expect(url).toBe(`http://127.0.0.1:${port}`)
  })

  it("applies fault and quota flags", async () => {
    const url = await start(["--port", "0", "--transient", "1", "--seed", "7"])
    const res = await analyze(url, "hello")
    expect(res.status).toBe(503)
    expect(((await res.json()) as any).error.code).toBe("TRANSIENT_ERROR")
    const limited = await start(["--port", "0", "--quota", "analyzeText=1"])
    expect((await analyze(limited, "a")).status).toBe(200)
    const over = await analyze(limited, "b")
    expect(over.status).toBe(429)
    expect(((await over.json()) as any).error.details.quotaError.violations[0].quotaName).toBe(
      "analyze.message.requests_per_second"
    )
  })

  it("exits 2 on a bad flag value and 78 on an invalid configuration file", async () => {
    expect(await warden(["sandbox", "--transient", "2"])).toMatchObject({ code: 2 })
    const file = `${mkdtempSync(`${tmpdir()}/sandbox-cli-`)}/bad.yaml`
    writeFileSync(file, "keys:\n  - key: k1\n    kind: superuser\n")
    const failure = await warden(["sandbox", "--config", file])
    expect(failure.code).toBe(78)
    expect(failure.stderr).toContain("keys.0.organisation")
    expect(failure.stderr).toContain("keys.0.kind")
  })

  it("--config accepts every option the README lists (port, host, maxBodyBytes ...); the file's port is used, --port wins", async () => {
    const readme = readFileSync(new URL("../../../packages/sandbox/README.md", import.meta.url), "utf8")
    const listed = /Options \(all optional[\s\S]*?\n\n/.exec(readme)![0]
    for (const field of [
      "port",
      "host",
      "keys",
      "quotas",
      "faults",
      "requestLogSize",
      "legacyReferencePrefix",
      "maxBodyBytes"
    ])
      expect(listed).toMatch(new RegExp(`\`${field}[\`:]`))
    const port = await freePort()
    const file = `${mkdtempSync(`${tmpdir()}/sandbox-cli-`)}/all.yaml`
    writeFileSync(
      file,
      [
        `port: ${port}`,
        "host: 127.0.0.1",
        "maxBodyBytes: 200",
        "requestLogSize: 10",
        "legacyReferencePrefix: mine",
        "keys:\n  - { key: k1, organisation: acme }",
        "quotas: {}",
        "faults: {}"
      ].join("\n")
    )
    const url = await start(["--config", file])
    expect(url).toBe(`http://127.0.0.1:${port}`)
    // maxBodyBytes: 200 from the file is in force
    const tooBig = await analyze(url, "x".repeat(500))
    expect(tooBig.status).toBe(400)
    expect(await tooBig.text()).toContain("larger than 200 bytes")
    expect((await analyze(url, "hello")).status).toBe(200)
    for (const child of children.splice(0)) child.kill("SIGTERM")
    const other = await start(["--config", file, "--port", "0"])
    expect(other).not.toBe(`http://127.0.0.1:${port}`)
  })
})
