package io.mongocdc.workflows.model;

/** Names the Temporal objects of a mirror. */
public final class MirrorIds {

  /** The task queue workers poll unless configured otherwise. */
  public static final String DEFAULT_TASK_QUEUE = "mongo-cdc";

  private static final String WORKFLOW_ID_PREFIX = "mirror-";
  private static final String VERIFY_WORKFLOW_ID_PREFIX = "verify-";

  private MirrorIds() {}

  /** One workflow per mirror: {@code mirror-<name>}. */
  public static String workflowId(String mirror) {
    return WORKFLOW_ID_PREFIX + mirror;
  }

  /** One verify at a time per mirror: {@code verify-<name>}. */
  public static String verifyWorkflowId(String mirror) {
    return VERIFY_WORKFLOW_ID_PREFIX + mirror;
  }
}
