/**
 * `@warden/core`: the one declaration of the Content Analysis and Feedback API — schemas, taxonomies,
 * errors and the `HttpApi` contract that the client, the sandbox and the OpenAPI document derive from.
 * Clients import `@warden/core/client`, the same without the contract (and `effect/http-api`).
 */
export * from "./client.ts"
export * from "./Contract.ts"
export * as OpenApiDocument from "./OpenApiDocument.ts"
