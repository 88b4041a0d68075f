# syntax=docker/dockerfile:1
# The mongo-cdc image: `worker` by default; any other mongo-cdc command as arguments, e.g.
#   docker run --rm mongo-cdc:dev mirror status demo --temporal-address temporal:7233
# Needs BuildKit (the default builder of Docker 23+ and of `docker compose`).

# Build stage: the runnable jar worker/target/mongo-cdc.jar. The Maven repository is a
# BuildKit cache, so a rebuild after a code change does not download every dependency again.
# -Pslim leaves out the embedded PostgreSQL binaries (about 126 MB, four platforms) that only
# 'mongo-cdc dev' runs; 'dev' from this image says so and stops.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -Pslim -pl worker -am package -DskipTests

# Runtime stage: a JRE and the jar, run as an unprivileged user.
FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 mongocdc \
 && useradd --system --uid 10001 --gid mongocdc --home-dir /app --no-create-home --shell /usr/sbin/nologin mongocdc
WORKDIR /app
COPY --from=build /src/worker/target/mongo-cdc.jar /app/mongo-cdc.jar
USER 10001:10001
ENTRYPOINT ["java", "-jar", "/app/mongo-cdc.jar"]
CMD ["worker"]
