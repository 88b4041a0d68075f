/**
 * Temporal workflows of mongo-cdc and the serializable model they exchange with activities.
 *
 * <p>Code here runs inside Temporal's deterministic sandbox: no I/O, no clocks, no threads, no
 * randomness except through the Workflow API.
 */
package io.mongocdc.workflows;
