/**
 * `GET /api/cluster` (admin token): the runners of the cluster as the answering runner sees them, each
 * with its address, effect/cluster's health verdict, whether its report is fresh, the shards it holds,
 * the singletons it runs (`source:<id>`, `sink:<name>`) and the work its entities did (events and
 * batch messages since it started). With SQLite (`SingleRunner`) the one runner holds every shard.
 */
import { Effect } from "effect"
import type { ClusterView } from "../state/ClusterStatus.ts"
import type { AdminRoute } from "./AdminServer.ts"

/** The route, reading `view`. */
export const route = (view: ClusterView["Service"]): AdminRoute => ({
  method: "GET",
  match: (path) => (path === "/api/cluster" ? {} : undefined),
  handle: () => Effect.map(view.overview, (body) => ({ status: 200, body }))
})
