/**
 * `GET /api/cluster` (admin token): the runners of the cluster as the answering runner sees them, each
 * with its address, effect/cluster's health verdict, whether its report is fresh, the shards it holds,
 * the singletons it runs (`source:<id>`, `sink:<name>`) and the work its entities did (events and
 * batch messages since it started). With SQLite (`SingleRunner`) the one runner holds every shard.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ClusterView } from "../state/ClusterStatus.ts"
import { AdminApi } from "./AdminApi.ts"

/** The route (declared in `AdminApi`'s cluster group), reading the `ClusterView`. */
export const layer = HttpApiBuilder.group(AdminApi, "cluster", (handlers) =>
  Effect.map(Effect.service(ClusterView), (view) => handlers.handle("cluster", () => view.overview))
)
