/**
 * The routes the sandbox serves, read from `@warden/core`'s `ContentAnalysisApi` declaration: path,
 * method, payload schema, parse options and auth scheme of every endpoint. The server decodes with
 * exactly these schemas, so the sandbox and the client cannot drift.
 */
import { ApiKeyAuth, ContentAnalysisApi, type EndpointName, LegacyApiKeyAuth, PATHS } from "@warden/core"
import { Context, type Result, Schema, type SchemaAST } from "effect"
import { HttpApi } from "effect/http-api"

/** How an endpoint authenticates: `Authorization: ApiKey <key>` or legacy `X-Api-Key`. */
export type AuthScheme = "apiKey" | "legacyApiKey"

/** One endpoint of the contract, ready to serve. */
export interface Route {
  /** The endpoint's name in `PATHS` (`analyzeText`, `legacyAnalyze`, ...). */
  readonly name: EndpointName
  /** The `HttpApi` group (`analyze`, `feedback`, `legacy`). */
  readonly group: string
  /** The `HttpApi` endpoint name inside its group (`text`, `image`, ...). */
  readonly endpoint: string
  readonly method: string
  readonly path: string
  readonly auth: AuthScheme
  /** Decodes a parsed JSON body with the contract's payload schema and parse options. */
  readonly decode: (input: unknown) => Result.Result<unknown, Schema.SchemaError>
}

const nameOfPath = new Map<string, EndpointName>(
  (Object.entries(PATHS) as Array<[EndpointName, string]>).map(([name, path]) => [path, name])
)

const buildRoutes = (): ReadonlyMap<string, Route> => {
  const routes = new Map<string, Route>()
  HttpApi.reflect(ContentAnalysisApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, mergedAnnotations, middleware }) => {
      const name = nameOfPath.get(endpoint.path)
      if (name === undefined) throw new Error(`@warden/sandbox: no PATHS entry for ${endpoint.path}`)
      const [payload] = [...endpoint.payload.values()].flatMap((p) => [...p.schemas])
      if (payload === undefined) throw new Error(`@warden/sandbox: ${endpoint.path} has no payload schema`)
      const options: SchemaAST.ParseOptions | undefined = Context.getOrUndefined(
        mergedAnnotations,
        HttpApi.PayloadParseOptions
      )
      const decoder = Schema.decodeUnknownResult(payload as Schema.Codec<unknown, unknown>, options)
      // By the middleware's key: `has` wants the set's `AnyService`, whose `provides` the classes only
      // carry as a type.
      const uses = (service: { readonly key: string }) => [...middleware].some((m) => m.key === service.key)
      const auth: AuthScheme = uses(LegacyApiKeyAuth)
        ? "legacyApiKey"
        : uses(ApiKeyAuth)
          ? "apiKey"
          : group.identifier === "legacy"
            ? "legacyApiKey"
            : "apiKey"
      routes.set(endpoint.path, {
        name,
        group: group.identifier,
        endpoint: endpoint.identifier,
        method: endpoint.method,
        path: endpoint.path,
        auth,
        decode: (input) => decoder(input)
      })
    }
  })
  return routes
}

/** Every route of the contract, by path. */
export const routes: ReadonlyMap<string, Route> = buildRoutes()
