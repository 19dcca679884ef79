/** Black-box helpers: a sandbox per test file, and plain `fetch` calls against it. */
import { ErrorEnvelope } from "@warden/core"
import { Schema } from "effect"
import { expect } from "vitest"
import { Sandbox } from "../src/index.ts"

export const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
export const STANDARD = "sandbox-standard-key"
export const RESELLER = "sandbox-reseller-key"

export type Running = Sandbox.RunningSandbox

export const start = (options: Parameters<typeof Sandbox.startPromise>[0] = {}) => Sandbox.startPromise(options)

export interface Reply {
  readonly status: number
  readonly text: string
  readonly json: any
}

const read = async (res: Response): Promise<Reply> => {
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, text, json }
}

/** POSTs a JSON body (a string is sent as is) with `Authorization: ApiKey <key>`. */
export const post = async (
  url: string,
  path: string,
  body: unknown,
  options: { key?: string | null; headers?: Record<string, string> } = {}
): Promise<Reply> => {
  const key = options.key === undefined ? STANDARD : options.key
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(key === null ? {} : path === "/api/analyze" ? { "x-api-key": key } : { authorization: `ApiKey ${key}` }),
    ...options.headers
  }
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return read(res)
}

/** GETs a path (control API). */
export const get = async (url: string, path: string): Promise<Reply> => read(await fetch(`${url}${path}`))

/** PUTs a JSON body (control API). */
export const put = async (url: string, path: string, body: unknown): Promise<Reply> =>
  read(
    await fetch(`${url}${path}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  )

const isEnvelope = Schema.is(ErrorEnvelope)

/** Asserts an error answer: status, a valid envelope with exactly one details field, the code. */
export const expectError = (reply: Reply, status: number, code: string): any => {
  expect(reply.status, reply.text).toBe(status)
  expect(isEnvelope(reply.json), reply.text).toBe(true)
  expect(reply.json.error.code).toBe(code)
  const details = reply.json.error.details
  expect(Object.keys(details)).toHaveLength(1)
  return Object.values(details)[0]
}

/** The fields named in a 400's violations. */
export const violatedFields = (reply: Reply): Array<string> => {
  const d = expectError(reply, 400, "BAD_REQUEST_ERROR")
  return d.fieldViolations.map((v: { field: string }) => v.field)
}
