package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.verify.VerifyFindings;
import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code mirror verify} prints of a run that left {@code _id}s unsettled: they changed while
 * verify read them, or the mirror had not caught up, so verify never found them to differ and
 * says so apart (issue 47, finding 11: they were counted as "differ").
 */
class MirrorVerifyPrintTest {

  private static String printed(VerifyResult result) {
    StringWriter out = new StringWriter();
    MirrorVerifyCommand.print(result, new PrintWriter(out, true));
    return out.toString();
  }

  private static VerifyResult result(long missing, long different, long unsettled) {
    return new VerifyResult(7, false, List.of(new VerifyResult.Collection("orders", 4, 100, 100, missing, 0, different,
        unsettled, 0)), List.of(), 1.5);
  }

  @Test
  void unsettledIdsAreNamedApartFromThoseThatDiffer() {
    String out = printed(result(1, 2, 4));
    assertTrue(out.contains("3 _ids differ; 4 _ids unsettled (changed while verify read them, or the mirror had not"
        + " caught up with them: verify again later)"), out);
    assertFalse(out.contains("7 _ids differ"), out);
  }

  @Test
  void aRunWithOnlyUnsettledIdsFoundNothingToDiffer() {
    String out = printed(result(0, 0, 2));
    assertTrue(out.contains("no _id found to differ; 2 _ids unsettled"), out);
    assertFalse(out.contains("2 _ids differ"), out);
    assertTrue(out.contains("select * from mongo_cdc.verify_ranges where run_id = 7"), "where to look: " + out);
  }

  @Test
  void aCleanRunMatches() {
    assertTrue(printed(result(0, 0, 0)).contains("the destination matches the source"));
  }

  @Test
  void progressCountsTheUnsettledApart() {
    assertEquals("3 differ, 4 unsettled", VerifyFindings.soFar(new VerifyProgress(7, 10, 5, 500, 3, 0, 4)));
    assertEquals("3 differ", VerifyFindings.soFar(new VerifyProgress(7, 10, 5, 500, 3, 0, 0)));
  }
}
