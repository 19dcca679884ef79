/**
 * A TCP address, and how it is written: `HOST:PORT`, an IPv6 host in brackets (`[::1]:8787`). One
 * formatter for the config's encoding, its warnings and the cluster runner's errors and status.
 */

/** A TCP address: host and port. */
export interface HostPort {
  readonly host: string
  readonly port: number
}

/** `HOST:PORT`, `[IPv6]:PORT`. */
export const format = ({ host, port }: HostPort): string =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
