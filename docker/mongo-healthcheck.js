// Healthcheck of the docker-compose `mongo` service (development only).
// Initiates the single-node replica set rs0 on the first run, and reports healthy (exit 0) only
// once this member is primary and the demo mirror's collection demo.orders exists (mirror
// validation refuses a collection that does not exist).
try {
  rs.status();
} catch (e) {
  if (e.codeName !== 'NotYetInitialized') {
    throw e;
  }
  rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] });
}
if (!db.hello().isWritablePrimary) {
  quit(1);
}
const demo = db.getSiblingDB('demo');
if (!demo.getCollectionNames().includes('orders')) {
  demo.createCollection('orders');
}
