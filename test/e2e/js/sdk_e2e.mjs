// Drives cubby with @aws-sdk/client-s3 and @aws-sdk/lib-storage at their default settings:
// flexible checksums ("WHEN_SUPPORTED", CRC32), aws-chunked bodies with checksum trailers for
// streams, multipart through Upload. Prints one JSON document on stdout; test_sdk_js.py asserts
// on it. Every step records what the server answered, so a failing step does not hide the rest.
//
// Environment: S3_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, BUCKET,
// UPLOAD_MIB (size of the lib-storage upload).
import { createHash } from "node:crypto";
import { Readable } from "node:stream";

import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const client = new S3Client({
  endpoint: env("S3_ENDPOINT"),
  region: env("AWS_REGION"),
  forcePathStyle: true,
  credentials: {
    accessKeyId: env("AWS_ACCESS_KEY_ID"),
    secretAccessKey: env("AWS_SECRET_ACCESS_KEY"),
  },
  maxAttempts: 1,
});
const bucket = env("BUCKET");
const uploadMiB = Number(process.env.UPLOAD_MIB || "100");

// CRC32 (IEEE), base64 of the big-endian value, as in x-amz-checksum-crc32.
const crcTable = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32Update(crc, buf) {
  let c = ~crc >>> 0;
  for (let i = 0; i < buf.length; i++) c = crcTable[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
function crc32Base64(buf) {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32Update(0, buf));
  return out.toString("base64");
}
const sha256 = (buf) => createHash("sha256").update(buf).digest("hex");

// Deterministic pseudo-random bytes in 1 MiB chunks (xorshift), streamed, never held whole.
function* chunks(totalBytes, seed) {
  const size = 1 << 20;
  let x = seed >>> 0 || 1;
  for (let off = 0; off < totalBytes; off += size) {
    const n = Math.min(size, totalBytes - off);
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i + 4 <= n; i += 4) {
      x ^= x << 13; x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5; x >>>= 0;
      b.writeUInt32LE(x, i);
    }
    for (let i = n - (n % 4); i < n; i++) b[i] = i & 0xff;
    yield b;
  }
}

async function bodySha256(body) {
  const h = createHash("sha256");
  let n = 0;
  for await (const c of body) {
    h.update(c);
    n += c.length;
  }
  return { sha256: h.digest("hex"), length: n };
}

const results = {};
async function step(name, fn) {
  try {
    results[name] = { ok: true, ...(await fn()) };
  } catch (e) {
    results[name] = {
      ok: false,
      error: e.name || String(e),
      message: e.message,
      status: e.$metadata ? e.$metadata.httpStatusCode : undefined,
    };
  }
}

// Records the headers of each request the SDK sends (the names that show how it sent the body).
const sent = [];
client.middlewareStack.add(
  (next) => async (args) => {
    const r = args.request;
    if (r && r.headers) {
      sent.push({
        method: r.method,
        path: r.path,
        query: r.query ? Object.keys(r.query) : [],
        contentEncoding: r.headers["content-encoding"] || null,
        contentSha256: r.headers["x-amz-content-sha256"] || null,
        trailer: r.headers["x-amz-trailer"] || null,
        checksumHeaders: Object.keys(r.headers).filter((h) => h.startsWith("x-amz-checksum-")),
      });
    }
    return next(args);
  },
  { step: "finalizeRequest", name: "cubbyRecordHeaders", priority: "low" },
);

await step("createBucket", async () => {
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {};
});

const small = Buffer.from("hello from @aws-sdk/client-s3\n".repeat(1000));
await step("putBuffer", async () => {
  const before = sent.length;
  const r = await client.send(new PutObjectCommand({
    Bucket: bucket, Key: "buffer.txt", Body: small, ContentType: "text/plain",
    Metadata: { origin: "sdk-js" },
  }));
  return { etag: r.ETag, checksumCRC32: r.ChecksumCRC32 || null,
           wantCRC32: crc32Base64(small), request: sent[before] };
});

// A stream body: the SDK sends it aws-chunked with an x-amz-checksum-crc32 trailer.
const streamed = Buffer.concat([...chunks(3 * (1 << 20) + 17, 7)]);
await step("putStream", async () => {
  const before = sent.length;
  const r = await client.send(new PutObjectCommand({
    Bucket: bucket, Key: "stream.bin", Body: Readable.from([streamed]),
    ContentLength: streamed.length,
  }));
  return { etag: r.ETag, checksumCRC32: r.ChecksumCRC32 || null,
           wantCRC32: crc32Base64(streamed), request: sent[before] };
});

for (const [name, key, data] of [["getBuffer", "buffer.txt", small],
                                 ["getStream", "stream.bin", streamed]]) {
  await step(name, async () => {
    const r = await client.send(new GetObjectCommand({
      Bucket: bucket, Key: key, ChecksumMode: "ENABLED" }));
    // With ChecksumMode ENABLED the SDK itself validates the body against the returned checksum
    // and throws while reading if they differ.
    const got = await bodySha256(r.Body);
    return { checksumCRC32: r.ChecksumCRC32 || null, wantCRC32: crc32Base64(data),
             sha256: got.sha256, wantSha256: sha256(data), length: got.length,
             contentType: r.ContentType, metadata: r.Metadata };
  });
}

await step("upload", async () => {
  const total = uploadMiB * (1 << 20);
  const h = createHash("sha256");
  const src = Readable.from((function* () {
    for (const c of chunks(total, 12345)) { h.update(c); yield c; }
  })());
  const before = sent.length;
  const up = new Upload({ client, params: { Bucket: bucket, Key: "upload.bin", Body: src } });
  const r = await up.done();
  const wantSha256 = h.digest("hex");
  const parts = sent.slice(before).filter((s) => s.method === "PUT" && s.query.includes("partNumber"));
  const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: "upload.bin" }));
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: "upload.bin" }));
  const back = await bodySha256(got.Body);
  return { etag: r.ETag, parts: parts.length, firstPart: parts[0] || null,
           headLength: head.ContentLength, headETag: head.ETag,
           sha256: back.sha256, length: back.length, wantSha256, wantLength: total };
});

await step("copy", async () => {
  const r = await client.send(new CopyObjectCommand({
    Bucket: bucket, Key: "copy.txt", CopySource: `${bucket}/buffer.txt` }));
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: "copy.txt" }));
  const back = await bodySha256(got.Body);
  return { etag: r.CopyObjectResult && r.CopyObjectResult.ETag, sha256: back.sha256,
           wantSha256: sha256(small), metadata: got.Metadata, contentType: got.ContentType };
});

const listKeys = Array.from({ length: 25 }, (_, i) => `list/k${String(i).padStart(2, "0")}`);
await step("listPages", async () => {
  for (const k of listKeys) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: Buffer.from(k) }));
  }
  const pages = [];
  let token;
  do {
    const r = await client.send(new ListObjectsV2Command({
      Bucket: bucket, Prefix: "list/", MaxKeys: 10, ContinuationToken: token }));
    pages.push({ keys: (r.Contents || []).map((o) => o.Key), isTruncated: !!r.IsTruncated,
                 keyCount: r.KeyCount, hasToken: !!r.NextContinuationToken });
    token = r.NextContinuationToken;
  } while (token && pages.length < 10);
  return { pages };
});

await step("deleteObjects", async () => {
  const r = await client.send(new DeleteObjectsCommand({
    Bucket: bucket,
    Delete: { Objects: [...listKeys, "list/never-existed"].map((Key) => ({ Key })) },
  }));
  const after = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "list/" }));
  return { deleted: (r.Deleted || []).map((d) => d.Key).sort(), errors: r.Errors || [],
           remaining: after.KeyCount };
});

results.requests = sent.length;
process.stdout.write(JSON.stringify(results) + "\n");
