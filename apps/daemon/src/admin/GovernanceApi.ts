/**
 * The admin API's governance group: policy backtests and erasure (of an item, an author, and their
 * audit). Composed into `AdminApi`.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { NotFound } from "./AdminError.ts"

const OptionalText = Schema.optionalKey(Schema.String)

/** Policy backtests and erasure. */
export class GovernanceGroup extends HttpApiGroup.make("governance").add(
  HttpApiEndpoint.post("policyTest", "/api/policy/test", {
    payload: Schema.Struct({ source: Schema.String, rules: Schema.optionalKey(Schema.Unknown), since: OptionalText }),
    success: Schema.Unknown.annotate({ description: "The backtest report (as `warden policy test --format json`)" })
  }).annotate(OpenApi.Summary, "Replays a source's stored verdicts through rules; no API call, no action"),
  HttpApiEndpoint.delete("eraseItem", "/api/items/:reference", {
    params: { reference: Schema.String },
    query: { source: OptionalText },
    success: Schema.Unknown.annotate({ description: "The counts erased, the references and the audit id" }),
    error: NotFound
  }).annotate(OpenApi.Summary, "Erases every stored copy of an item's content"),
  HttpApiEndpoint.delete("eraseAuthor", "/api/authors/:author", {
    params: { author: Schema.String },
    query: { source: OptionalText, username: OptionalText, confirm: OptionalText },
    success: Schema.Unknown.annotate({
      description:
        "The counts erased, the references and the audit id; by username without confirm=true, what would be erased"
    }),
    error: NotFound
  }).annotate(
    OpenApi.Summary,
    "Erases an author (<platform>:<identifier>): items, name, strikes, review statements; or, with /api/authors/-?username=NAME&source=ID, the authors of a username (listed first, erased with confirm=true)"
  ),
  HttpApiEndpoint.get("erasures", "/api/erasures", {
    query: { limit: OptionalText },
    success: Schema.Struct({ erasures: Schema.Array(Schema.Unknown) })
  }).annotate(OpenApi.Summary, "The audit of erasures, newest first")
) {}
