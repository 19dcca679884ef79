/** The sandbox in a child process of a benchmark: options as JSON in argv, its URL sent over IPC. */
import { Sandbox } from "../../packages/sandbox/src/index.ts"

const options = JSON.parse(process.argv[2] ?? "{}") as Parameters<typeof Sandbox.startPromise>[0]
const sandbox = await Sandbox.startPromise({ ...options, host: "127.0.0.1", port: 0 })
process.send?.({ url: sandbox.url })
const stop = () => {
  void sandbox.close().finally(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("disconnect", stop)
