/** `@warden/transport/testing`: a scripted loopback stand-in for the API, for tests of code built on the transport. */
export * from "./ScriptedServer.ts"
