package io.github.stealpool.it;

import java.nio.file.Files;
import java.nio.file.Path;

/** Test helper: files of the repository, found from wherever Maven runs the tests. */
final class RepositoryFiles {

    private RepositoryFiles() {
    }

    /** {@code relative} in the working directory or the nearest directory above it that has it. */
    static Path findUp(Path relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve(relative);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionError(relative + " not found above " + Path.of("").toAbsolutePath());
    }
}
