/** Config files for the tests of `checkConfig` / `loadConfig`: numbered files in one fresh temporary directory. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A fresh directory and a `write` putting `text` in the next file of it (`c0.yaml`, `c1.yaml`, ...), returning its path. */
export const configFiles = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  let n = 0
  const write = (text: string): string => {
    const path = join(dir, `c${n++}.yaml`)
    writeFileSync(path, text)
    return path
  }
  return { dir, write }
}
