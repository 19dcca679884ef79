/**
 * The running daemon's admin API as the CLI calls it: an `HttpApiClient` of `AdminApi`, so that a
 * request and its answer are the admin contract's own types (no hand-built body, no hand-read envelope).
 * Loaded on first use (`import()`): it brings `effect/http-api`, which the CLI's other commands do not need.
 */
import { Effect, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"

/** A client of the admin API at `url`, authenticated with `token` (`Authorization: Bearer`). */
export const make = (url: string, token: Redacted.Redacted<string>) =>
  HttpApiClient.make(AdminApi, {
    baseUrl: url.replace(/\/+$/, ""),
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(token)))
  }).pipe(Effect.provide(FetchHttpClient.layer))
