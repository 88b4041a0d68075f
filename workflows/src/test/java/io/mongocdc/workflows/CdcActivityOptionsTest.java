package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CdcActivityOptionsTest {

  @Test
  void theWorkflowBacksOffDoublingUpToTenMinutes() {
    assertEquals(30, CdcActivityOptions.workflowBackoff(1).getSeconds());
    assertEquals(60, CdcActivityOptions.workflowBackoff(2).getSeconds());
    assertEquals(600, CdcActivityOptions.workflowBackoff(6).getSeconds());
    assertEquals(600, CdcActivityOptions.workflowBackoff(100).getSeconds());
  }
}
