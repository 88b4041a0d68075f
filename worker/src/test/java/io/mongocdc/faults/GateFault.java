package io.mongocdc.faults;

/** Faults that fire when the reader reaches a chosen event (it waits at a gate meanwhile). */
enum GateFault {
  /** pg_terminate_backend of every client backend of the destination database. */
  KILL_CONNECTIONS,
  /** The destination's PostgreSQL server is stopped and started again. */
  RESTART_POSTGRES,
  /** The worker is killed mid-batch; a new worker takes over. */
  CRASH_WORKER,
  /** The attempt stops heartbeating until Temporal times it out; the retry runs beside it. */
  HEARTBEAT_STALL,
  /** {@code pause {"cancelInFlight": true}}: the batch in flight is cancelled. */
  CANCELLING_PAUSE,
  /** {@code pause}: the copies running finish, no other starts; the driver resumes once status says PAUSED. */
  PAUSE,
  /** Not a fault: the source's documents change while a partition is copied (the driver moves the source on). */
  SOURCE_CHANGES
}
