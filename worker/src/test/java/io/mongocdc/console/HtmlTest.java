package io.mongocdc.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.jooq.types.DayToSecond;
import org.junit.jupiter.api.Test;

/** How the console shows catalog values: escaped, redacted, and as a person reads them. */
class HtmlTest {

  @Test
  void valuesReadAsAPersonReadsThem() {
    assertEquals("1 min 15 s", Html.value(DayToSecond.valueOf(Duration.ofSeconds(75))), "an interval");
    assertEquals("2 h 05 min", Html.value(DayToSecond.valueOf(Duration.ofMinutes(125))));
    assertEquals("2026-12-03 07:00:01 UTC", Html.value(OffsetDateTime.parse("2026-12-03T08:00:01+01:00")));
    assertEquals("12", Html.value(new BigDecimal("12.00")), "a sum of counts is a whole number");
    assertEquals("1.50", Html.value(1.5));
    assertEquals("1989", Html.value(1989.4));
    assertEquals("", Html.value(null));
    assertEquals("", Html.seconds(Double.NaN));
    assertEquals("-30 s", Html.seconds(-30), "a negative oplog headroom: history already lost");
  }

  @Test
  void textIsEscapedAndRedacted() {
    assertEquals("&lt;b&gt;&amp;&quot;", Html.text("<b>&\""));
    assertEquals("mongodb://admin:***@db:27017", Html.text("mongodb://admin:hunter2@db:27017"));
    assertEquals("<p class=\"none\">nothing</p>", Html.table(List.of(), List.of("a"), "nothing"));
    assertEquals("<table><thead><tr><th>batch id</th></tr></thead><tbody><tr><td>&lt;7&gt;</td></tr></tbody></table>",
        Html.table(List.of(Map.of("batch_id", "<7>")), List.of("batch_id"), ""));
  }
}
