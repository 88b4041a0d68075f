-- DEVELOPMENT ONLY: demo roles and passwords for the docker-compose stack (docs/compose.md).
-- Runs once, when the postgres service starts on an empty data volume.

-- Temporal (auto-setup creates and migrates its own databases, temporal and temporal_visibility).
CREATE ROLE temporal LOGIN CREATEDB PASSWORD 'temporal-dev-only';

-- mongo-cdc: the catalog and the destination of the demo mirror.
CREATE ROLE mongo_cdc LOGIN PASSWORD 'mongo-cdc-dev-only';
CREATE DATABASE mongo_cdc_catalog OWNER mongo_cdc;
CREATE DATABASE warehouse OWNER mongo_cdc;
