/** Reads and writes PNG `tEXt` chunks: the sandbox carries an image's "OCR text" in one. */
import { deflateSync } from "node:zlib"

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** Whether the bytes start with the PNG signature. */
export const isPng = (bytes: Uint8Array): boolean =>
  bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(SIGNATURE)

/** Every `tEXt` chunk of a PNG, as keyword -> text (Latin-1, as the PNG spec says). Tolerates truncation. */
export const textChunks = (bytes: Uint8Array): Map<string, string> => {
  const out = new Map<string, string>()
  if (!isPng(bytes)) return out
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = 8
  while (offset + 8 <= buf.length) {
    const length = buf.readUInt32BE(offset)
    const type = buf.toString("latin1", offset + 4, offset + 8)
    const start = offset + 8
    const end = start + length
    if (end > buf.length) break
    if (type === "tEXt") {
      const chunk = buf.subarray(start, end)
      const nul = chunk.indexOf(0)
      if (nul > 0) out.set(chunk.toString("latin1", 0, nul), chunk.toString("latin1", nul + 1))
    }
    if (type === "IEND") break
    offset = end + 4
  }
  return out
}

let crcTable: Int32Array | undefined
const crc32 = (data: Buffer): number => {
  crcTable ??= Int32Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c
  })
  let crc = -1
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, "latin1")
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/** A valid 1x1 PNG carrying the given `tEXt` chunks (e.g. `{ OCR: "you idiot" }`): for tests and demos. */
export const make = (texts: Readonly<Record<string, string>> = {}): Buffer => {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
  const idat = deflateSync(Buffer.from([0, 0]))
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    ...Object.entries(texts).map(([k, v]) => chunk("tEXt", Buffer.from(`${k}\u0000${v}`, "latin1"))),
    chunk("IDAT", idat),
    chunk("IEND", Buffer.alloc(0))
  ])
}
