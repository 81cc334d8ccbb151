// Bucket and object tagging through minio-js 8 against S3_ENDPOINT; prints one JSON line with
// each step's outcome ({ok: true, ...} or {ok: false, error}) for test_sdk_minio_js.py.
import * as Minio from 'minio';

const endpoint = new URL(process.env.S3_ENDPOINT);
const client = new Minio.Client({
  endPoint: endpoint.hostname,
  port: Number(endpoint.port),
  useSSL: endpoint.protocol === 'https:',
  accessKey: process.env.AWS_ACCESS_KEY_ID,
  secretKey: process.env.AWS_SECRET_ACCESS_KEY,
  region: process.env.AWS_REGION,
});
const bucket = process.env.BUCKET;

async function step(fn) {
  try {
    const value = await fn();
    return { ok: true, value: value ?? null };
  } catch (e) {
    return { ok: false, error: `${e.name} code=${e.code} status=${e.statusCode} ${e.message}` };
  }
}

const out = {};
out.makeBucket = await step(() => client.makeBucket(bucket));
out.setBucketTagging = await step(() => client.setBucketTagging(bucket, { team: 'web', env: 'dev' }));
out.getBucketTagging = await step(() => client.getBucketTagging(bucket));
out.putObject = await step(async () => { await client.putObject(bucket, 'tagged', Buffer.from('x')); });
out.setObjectTagging = await step(() => client.setObjectTagging(bucket, 'tagged', { k: 'v' }));
out.getObjectTagging = await step(() => client.getObjectTagging(bucket, 'tagged'));
out.removeObjectTagging = await step(() => client.removeObjectTagging(bucket, 'tagged'));
out.removeBucketTagging = await step(() => client.removeBucketTagging(bucket));
out.getBucketTaggingAfterRemove = await step(() => client.getBucketTagging(bucket));
console.log(JSON.stringify(out));
