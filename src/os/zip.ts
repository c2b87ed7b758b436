/**
 * A zip archive of a few files, as a workflow artifact holds them (the artifact service takes a zip), and one
 * member read back out of one. Written: deflated entries, UTF-8 names, no zip64 (each file and the whole under
 * 4 GB). Read: stored (0) or deflated (8) entries, the member's CRC-32 and size checked, its size bounded before it
 * is inflated; an encrypted entry, a zip64 archive or a member past the bound is refused, named.
 */
import { zlib } from './lazy.js';

interface ZipFile {
  /** Its path inside the archive, `/`-separated. */
  name: string;
  data: Buffer;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** Bit 11: the name is UTF-8. */
const UTF8 = 0x0800;

/** A time as MS-DOS writes it (two-second steps, local fields taken as UTC). */
function dosTime(at: Date): { time: number; date: number } {
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
    date: ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

/** The archive of `files`, in their order. */
export function zipFiles(files: ZipFile[], at = new Date()): Buffer {
  const z = zlib();
  const { time, date } = dosTime(at);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.name, 'utf8');
    const packed = z.deflateRawSync(f.data);
    const crc = z.crc32(f.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(f.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, zip 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(UTF8, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(f.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100600 << 16) >>> 0, 38); // a regular file, mode 0600
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** The end-of-central-directory record's offset: the last one in the archive's final 64 kB. */
function endRecord(zip: Buffer): number {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--)
    if (zip.readUInt32LE(i) === END) return i;
  throw new Error('not a zip archive (no end of central directory)');
}

interface Entry {
  method: number;
  flags: number;
  crc: number;
  packed: number;
  size: number;
  local: number;
}

/** The central directory's entry of `name`, or undefined. */
function entryOf(zip: Buffer, name: string): Entry | undefined {
  const end = endRecord(zip);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL)
      throw new Error('a damaged zip archive (its central directory)');
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name)
      return {
        flags: zip.readUInt16LE(at + 8),
        method: zip.readUInt16LE(at + 10),
        crc: zip.readUInt32LE(at + 16),
        packed: zip.readUInt32LE(at + 20),
        size: zip.readUInt32LE(at + 24),
        local: zip.readUInt32LE(at + 42),
      };
    at += 46 + skip;
  }
  return undefined;
}

/**
 * The bytes of member `name` of `zip`, or undefined when it holds none. Throws, in words, for a member it will not
 * read: encrypted, zip64, another method, over `maxBytes`, or whose bytes are not what its CRC-32 and size say.
 */
export function unzipFile(zip: Buffer, name: string, maxBytes: number): Buffer | undefined {
  const e = entryOf(zip, name);
  if (!e) return undefined;
  if (e.flags & 1) throw new Error(`${name} is encrypted in the archive`);
  if (e.size === 0xffffffff || e.packed === 0xffffffff) throw new Error(`${name} is a zip64 entry`);
  if (e.size > maxBytes) throw new Error(`${name} is ${e.size} bytes, over the ${maxBytes} read`);
  if (e.local + 30 > zip.length || zip.readUInt32LE(e.local) !== LOCAL)
    throw new Error('a damaged zip archive (a local header)');
  const start = e.local + 30 + zip.readUInt16LE(e.local + 26) + zip.readUInt16LE(e.local + 28);
  const packed = zip.subarray(start, start + e.packed);
  if (packed.length !== e.packed) throw new Error(`${name} is cut off in the archive`);
  const z = zlib();
  let data: Buffer;
  if (e.method === 0) data = Buffer.from(packed);
  else if (e.method === 8) data = z.inflateRawSync(packed, { maxOutputLength: Math.max(1, e.size) });
  else throw new Error(`${name} is compressed with method ${e.method}, which is not read`);
  if (data.length !== e.size || z.crc32(data) >>> 0 !== e.crc)
    throw new Error(`${name} in the archive does not match its own CRC-32 and size`);
  return data;
}
