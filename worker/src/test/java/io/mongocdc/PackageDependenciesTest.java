package io.mongocdc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's layers, checked over the import graph of its main classes: ports sit below the
 * activities and the adapters that implement them, the composition root ({@code wiring}) above
 * both, the command line a leaf, and dev tooling outside the product.
 */
class PackageDependenciesTest {

  /** Packages that implement ports against real systems, or the seams those implementations fill. */
  private static final String[] ADAPTERS = {
      "io.mongocdc.catalog..", "io.mongocdc.destination..", "io.mongocdc.source..", "io.mongocdc.snapshot..",
      "io.mongocdc.devtools.generator.."};

  /** The interface of the mirror workflow's steps (package-private in its package). */
  private static final String STEP = "io.mongocdc.workflows.Step";

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        // jOOQ's generated classes reference each other across their packages; they are the catalog's.
        .withImportOption(location -> !location.contains("/io/mongocdc/catalog/jooq/"))
        .importPackages("io.mongocdc");
  }

  /**
   * Every package is its own slice: a seam and its adapter share a parent package (the change
   * stream seam {@code source}, the MongoDB driver adapter {@code source.mongo}) but sit on
   * different layers.
   */
  @Test
  void noPackageCycle() {
    check(slices().matching("io.mongocdc.(**)").should().beFreeOfCycles());
  }

  @Test
  void adaptersDoNotDependOnTheActivities() {
    check(noClasses().that().resideInAnyPackage(ADAPTERS)
        .should().dependOnClassesThat().resideInAPackage("io.mongocdc.activities.."));
  }

  @Test
  void nothingOutsideTheCommandLineDependsOnIt() {
    check(noClasses().that().resideOutsideOfPackage("io.mongocdc.cli..")
        .should().dependOnClassesThat().resideInAPackage("io.mongocdc.cli.."));
  }

  @Test
  void portsDependOnNoAdapterActivityOrWiring() {
    check(noClasses().that().resideInAPackage("io.mongocdc.ports..")
        .should().dependOnClassesThat().resideInAnyPackage("io.mongocdc.catalog..", "io.mongocdc.destination..",
            "io.mongocdc.source.mongo..", "io.mongocdc.devtools..", "io.mongocdc.activities..", "io.mongocdc.wiring..",
            "io.mongocdc.cli.."));
  }

  @Test
  void productPackagesDoNotDependOnDevTooling() {
    check(noClasses().that().resideOutsideOfPackages("io.mongocdc.devtools..", "io.mongocdc.cli..")
        .should().dependOnClassesThat().resideInAPackage("io.mongocdc.devtools.."));
  }

  /**
   * The mirror workflow's steps leave work for each other in its state; none calls (or names)
   * another, so a step is added or changed without reading the others.
   */
  @Test
  void workflowStepsDoNotCallEachOther() {
    JavaClasses workflows = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.mongocdc.workflows");
    ArchCondition<JavaClass> dependOnNoOtherStep = new ArchCondition<>("depend on no other step") {
      @Override
      public void check(JavaClass step, ConditionEvents events) {
        for (Dependency dependency : step.getDirectDependenciesFromSelf()) {
          JavaClass target = dependency.getTargetClass();
          if (isStep(target) && !target.equals(step)) {
            events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
          }
        }
      }
    };
    List<JavaClass> steps = workflows.stream().filter(PackageDependenciesTest::isStep).toList();
    if (steps.size() < 5) {
      throw new AssertionError("the import found " + steps.size() + " workflow steps: " + steps);
    }
    classes().that(new DescribedPredicate<JavaClass>("are workflow steps") {
      @Override
      public boolean test(JavaClass c) {
        return isStep(c);
      }
    }).should(dependOnNoOtherStep).check(workflows);
  }

  private static boolean isStep(JavaClass c) {
    return !c.getName().equals(STEP) && c.isAssignableTo(STEP);
  }

  @Test
  void theRulesSeeTheWorkersClasses() {
    // An import that found nothing would pass every rule above.
    if (main.stream().noneMatch(c -> c.getPackageName().equals("io.mongocdc.ports"))
        || main.stream().noneMatch(c -> c.getPackageName().equals("io.mongocdc.wiring"))) {
      throw new AssertionError("the import found no ports or wiring classes: " + main.size() + " classes");
    }
  }

  private static void check(ArchRule rule) {
    rule.check(main);
  }
}
