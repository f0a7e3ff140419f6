/* lx_cg_split (lib/executor/local/cgroup_path.h): the hierarchy and the
 * sandbox's cgroup an owned init removes, from the cgroup.procs it joined;
 * in v2 the sandbox's cgroup is the leaf's parent, which also holds the
 * commands' own cgroups. */
#include "harness.h"
#include "executor/local/cgroup_path.h"

static int split(const char *procs, char *root, char *rel)
{
    return lx_cg_split(procs, root, 300, rel, 300);
}

TEST(cgroup_path_v1_is_the_controllers_hierarchy)
{
    char root[300], rel[300];
    CHECK_INT(split("/sys/fs/cgroup/memory/daytona-validate/sb-0a/"
                    "cgroup.procs", root, rel), 0);
    CHECK_STR(root, "/sys/fs/cgroup/memory");
    CHECK_STR(rel, "daytona-validate/sb-0a");
}

TEST(cgroup_path_v2_is_the_leafs_parent)
{
    char root[300], rel[300];
    CHECK_INT(split("/sys/fs/cgroup/daytona-validate/sb-0a/sandbox/"
                    "cgroup.procs", root, rel), 0);
    CHECK_STR(root, "/sys/fs/cgroup");
    CHECK_STR(rel, "daytona-validate/sb-0a");
    CHECK_INT(split("/sys/fs/cgroup/unified/daytona-validate/sb-1b/sandbox/"
                    "cgroup.procs", root, rel), 0);
    CHECK_STR(root, "/sys/fs/cgroup/unified");
    CHECK_STR(rel, "daytona-validate/sb-1b");
}

TEST(cgroup_path_anything_else_is_refused)
{
    char root[300], rel[300], small[8];
    CHECK_INT(split("/sys/fs/cgroup/memory/sb-0a/cgroup.procs", root, rel),
              -1);
    CHECK_INT(split("/sys/fs/cgroup/daytona-validate/sb-0a/other/"
                    "cgroup.procs", root, rel), -1);
    CHECK_INT(split("/sys/fs/cgroup/daytona-validate/sb-0a/tasks", root,
                    rel), -1);
    CHECK_INT(split("/sys/fs/cgroup/daytona-validate//cgroup.procs", root,
                    rel), -1);
    CHECK_INT(split("/daytona-validate/sb-0a/cgroup.procs", root, rel), -1);
    CHECK_INT(lx_cg_split("/sys/fs/cgroup/memory/daytona-validate/sb-0a/"
                          "cgroup.procs", small, sizeof small, rel, 300), -1);
}
