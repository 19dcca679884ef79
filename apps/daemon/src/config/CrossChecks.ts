/**
 * Checks across sections of a decoded file: the API's base URLs for the regions and modes the sources
 * use, cluster settings that cannot work as written, moderators' names, author strikes that rules read,
 * and sink settings whose meaning changed. Each problem or warning is said once, where it is written.
 */
import { REGION_BASE_URL } from "@warden/transport"
import type { ConfigProblem } from "./ConfigError.ts"
import * as ClusterChecks from "./ClusterChecks.ts"
import type { CheckContext } from "./internal/CheckContext.ts"
import { decode, isRecord } from "./internal/Decode.ts"
import * as RuleChecks from "./RuleChecks.ts"
import { AuthorsSection } from "./AuthorsSection.ts"
import type { WardenConfigFile } from "./WardenConfig.ts"

const BASE_URL_KEY = { global: "baseUrl", "us-east": "baseUrlUsEast", "us-west": "baseUrlUsWest" } as const
const BASE_URL_ENV = REGION_BASE_URL

/** Two moderators of one name (their decisions could not be told apart), or one named like the shared token. */
const moderatorProblems = (raw: unknown): Array<ConfigProblem> => {
  if (!Array.isArray(raw)) return []
  const problems: Array<ConfigProblem> = []
  const seen = new Map<string, number>()
  raw.forEach((entry, i) => {
    const name = isRecord(entry) && typeof entry.name === "string" ? entry.name : undefined
    if (name === undefined) return
    if (name === "admin-token")
      problems.push({
        path: `moderators.${i}.name`,
        message: "'admin-token' is the name the audit gives the shared admin.token; choose another"
      })
    const first = seen.get(name)
    if (first !== undefined)
      problems.push({
        path: `moderators.${i}.name`,
        message: `duplicate moderator name '${name}' (also moderators.${first})`
      })
    else seen.set(name, i)
  })
  return problems
}

/**
 * Checks across sections into `context`'s problems and warnings; `decoded` is the whole file when it
 * decoded (most checks need it), `undefined` when it did not.
 */
export const check = (context: CheckContext, decoded: WardenConfigFile | undefined): void => {
  const { document, problems, warnings, used } = context
  const whole = context.resolved.whole
  // 5. the API: v1 sources need the base URL of every region they may use, legacy sources the legacy host
  if (decoded !== undefined && used("api")) {
    const api = decoded.api
    const modes = new Set(decoded.sources.map((s) => s.mode))
    if (modes.has("v1")) {
      const used = [api.region, ...(api.regions.policy === "failover" ? api.regions.failover : [])]
      for (const region of new Set(used)) {
        const key = BASE_URL_KEY[region]
        if (api[key] === undefined) {
          problems.push({
            path: `api.${key}`,
            message: `required: region ${region} is used by v1 sources but has no base URL (set api.${key} or ${BASE_URL_ENV[region]})`
          })
        }
      }
    }
    if (modes.has("legacy") && api.legacyBaseUrl === undefined) {
      problems.push({
        path: "api.legacyBaseUrl",
        message: "required: a source uses mode legacy (set api.legacyBaseUrl or WARDEN_LEGACY_BASE_URL)"
      })
    }
    if (api.regions.policy === "failover" && api.regions.failover.length === 0) {
      problems.push({
        path: "api.regions.failover",
        message: "policy failover needs at least one region to fail over to"
      })
    }
  }

  // 6. cluster settings that cannot work as written
  if (decoded !== undefined && used("cluster")) {
    warnings.push(
      ...ClusterChecks.check({
        postgres: decoded.state.postgres !== undefined,
        written: isRecord(document.cluster) ? Object.keys(document.cluster) : [],
        cluster: decoded.cluster
      })
    )
  }

  // 7. moderators and authors
  problems.push(...moderatorProblems(document.moderators))
  // The section on its own: a problem elsewhere in the file must not hide these.
  const authors = decode(AuthorsSection, document.authors ?? {}, ["authors"], "ignore", whole)
  if (authors.ok) {
    for (const [i, v] of authors.value.strikes.verdicts.entries())
      problems.push(...RuleChecks.unknownNames(v.when, `authors.strikes.verdicts.${i}.when`))
  }
  if (decoded !== undefined) {
    const { strikes } = decoded.authors
    if (strikes.verdicts.length === 0 && strikes.rejection === 0) {
      for (const [i, source] of decoded.sources.entries()) {
        for (const [r, rule] of source.rules.entries()) {
          if (rule.when.author?.strikesAtLeast !== undefined)
            warnings.push({
              path: `sources.${i}.rules.${r}.when.author.strikesAtLeast`,
              message:
                "never matches: authors.strikes counts no verdicts and rejections weigh 0, so no author has strikes"
            })
        }
      }
    }
  }

  // 8. sink settings whose meaning changed (issue 38): said once, where they are written
  if (decoded !== undefined) {
    const { sinks, log } = decoded
    if (log.content && !sinks.some((s) => s.content))
      warnings.push({
        path: "log.content",
        message: "governs the logs only: no sink's records carry the content text unless its entry says content: true"
      })
    for (const [i, sink] of sinks.entries())
      if (sink.type === "webhook" && sink.maxAttempts !== undefined)
        warnings.push({
          path: `sinks.${i}.maxAttempts`,
          message: "ignored: a failed delivery is retried for the sink's retry.window (default 24 hours)"
        })
  }
}
