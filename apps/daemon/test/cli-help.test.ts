/** Each command's `--help` shows examples an operator can copy. */
import { describe, expect, it } from "vitest"
import { warden } from "./support/WardenCli.ts"

const commands = [
  ["run"],
  ["config", "check"],
  ["config", "print"],
  ["config", "schema"],
  ["source", "preview"],
  ["sandbox"],
  ["demo"],
  ["state", "stats"],
  ["reanalyse"],
  ["analyze", "text"],
  ["analyze", "image"],
  ["analyze", "username"],
  ["feedback", "text"],
  ["feedback", "image"],
  ["legacy", "analyze"],
  ["source", "checkpoint", "show"],
  ["source", "checkpoint", "reset"],
  ["policy", "test"],
  ["erase"]
]

describe("--help", () => {
  it.each(commands.map((c) => [c.join(" "), c] as const))("warden %s --help has examples", async (_name, command) => {
    const r = await warden([...command, "--help"])
    expect(r.code).toBe(0)
    const examples = r.stdout.split("EXAMPLES\n")[1] ?? ""
    expect(examples, r.stdout).toMatch(new RegExp(`^ {2}warden ${command.join(" ")}|\\n {2}(\\S+=\\S+ )?warden `, "u"))
  })
})
