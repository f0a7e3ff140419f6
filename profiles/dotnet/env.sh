# Sourced by the dotnet profile's scripts: the SDK never looks for the
# network, a first run, workloads (the image has none: their integrity
# check would only print a warning on each validation's first build) or a
# build server, and restores only from the snapshot's package folder.
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
    DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_GENERATE_ASPNET_CERTIFICATE=0 \
    DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1 DOTNET_ADD_GLOBAL_TOOLS_TO_PATH=0 \
    DOTNET_CLI_USE_MSBUILD_SERVER=0 MSBUILDDISABLENODEREUSE=1 \
    DOTNET_SKIP_WORKLOAD_INTEGRITY_CHECK=1 \
    NUGET_PACKAGES=/opt/dval-dotnet/packages
