"""The API's root: its resources, each with the absolute URL of its list (DRF's router root)."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import routers
from rest_framework.schemas import DefaultSchema


class APIRootView(routers.APIRootView):
    """The API's resources, each with the absolute URL of its list. The OpenAPI document is at
    `/api/v1/schema`, its documentation at `/api/v1/docs`."""

    name = "Fruit Catalog API"  # the browsable API's title
    schema = DefaultSchema()  # DRF leaves its root out of the schema; this one is documented

    @extend_schema(
        operation_id="api_root",
        summary="List the API's resources",
        tags=["api"],
        responses={
            200: OpenApiResponse(
                {
                    "type": "object",
                    "additionalProperties": {"type": "string", "format": "uri"},
                },
                description="Each resource's name with the absolute URL of its list.",
                examples=[
                    OpenApiExample(
                        "Resources",
                        {
                            "fruits": "https://fruit.example/api/v1/fruits",
                            "publications": "https://fruit.example/api/v1/publications",
                            "characteristics": "https://fruit.example/api/v1/characteristics",
                        },
                    )
                ],
            )
        },
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
