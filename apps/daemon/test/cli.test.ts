import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import pkg from "../package.json" with { type: "json" }

const run = promisify(execFile)
const bin = new URL("../src/bin.ts", import.meta.url).pathname

describe("warden CLI", () => {
  it("prints its version", async () => {
    const { stdout } = await run(process.execPath, ["--conditions=@warden/source", bin, "--version"])
    expect(stdout).toContain(pkg.version)
  })

  it("exits 2 on a usage error: an unknown command or flag", async () => {
    await expect(run(process.execPath, ["--conditions=@warden/source", bin, "no-such-command"])).rejects.toMatchObject({
      code: 2
    })
    await expect(run(process.execPath, ["--conditions=@warden/source", bin, "run", "--bogus"])).rejects.toMatchObject({
      code: 2
    })
  })

  it("exits 78 when the config file cannot be read", async () => {
    await expect(
      run(process.execPath, ["--conditions=@warden/source", bin, "run", "--config", "/nonexistent/warden.yaml"])
    ).rejects.toMatchObject({ code: 78 })
  })
})
